"""Whole runs recorded into MCAP files in the layout rosbag2's MCAP storage plugin writes (no ROS imports here).

Modules: `tee.c` / `tee_library` (the C function that copies every delivered message into MCAP chunks), `schemas`
(ROS 2 message definitions as `ros2msg` schemas, type hashes, and where a type's stamp lies), `qos` (the QoS a
publisher offers, as `offered_qos_profiles`), `channels` (one channel per topic name), `rosbag2_metadata` (the
`rosbag2` metadata record), `rosbag2_yaml` (YAML in rosbag2's form), `mcap_file` (the file: header, definitions,
compressed chunks with their message indexes, summary), `target` (where the file goes), `recorder` (channels,
the writer thread, errors, closing).
"""
