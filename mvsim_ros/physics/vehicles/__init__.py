"""Vehicle kinds: how wheel spin becomes odometry (and, with issue-4 kinds, how commands become steering)."""
