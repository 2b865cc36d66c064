"""The simulation-state streams, one small sink each (odometry and ground truth, odom -> base_link TF, tf_static,
collision flags, /clock, fake localization), composed by ros/publishing/state_publishers.SimPublishers."""
