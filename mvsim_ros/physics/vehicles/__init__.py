"""Vehicle kinds: how wheel spin becomes odometry (and, for the Ackermann and articulated kinds, how commands
become steering)."""
