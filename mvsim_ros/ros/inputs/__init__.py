"""What comes into the node from topics: vehicle commands and initial poses."""
