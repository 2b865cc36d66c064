"""Whole runs recorded into MCAP files, as `ros2 bag record -s mcap` lays them out (no ROS imports here).

Modules: `tee.c` / `tee_library` (the C function that copies every delivered message into MCAP chunks), `schemas`
(ROS 2 message definitions as `ros2msg` schemas, and where a type's stamp lies), `mcap_file` (the file: header,
definitions, compressed chunks with their message indexes, summary), `recorder` (channels, the writer thread,
errors, closing).
"""
