"""`mvsim_report RUN.mcap`: a page (index.html with interactive figures, and PNG figures) to look at a recorded run.

- recording: one linear pass over the MCAP file (works on a file cut short), topics decoded only when asked;
- reading: per-vehicle series (true and odometry paths, commands, collisions) and the occupancy grid;
- rates: the topic table (count, mean rate over simulated time, periods, bytes, irregular rates);
- plots: the PNG figures (matplotlib, imported when drawing); interactive/: the page's interactive figures (Plotly,
  plotly.js written into the page); commands, watchdog: commands as the controller saw them; ranges: y axes with a
  floor; odometry_error: odometry against the truth; world_blocks: the world's blocks from the attached world;
- page: the HTML; build: all of it into a folder;
- bounded: reading the file's bytes within a memory budget (declared sizes checked, chunks decompressed with a cap);
- files: writing each output file by renaming a temporary one onto its name (a link there is replaced, not followed).

No ROS package is imported: messages are decoded from the schemas stored in the file (mcap_ros2).
"""

from mvsim_ros.report.build import Report, default_out_dir, write_report
from mvsim_ros.report.reading import Run, read_run
from mvsim_ros.report.recording import RecordingError

__all__ = ["Report", "RecordingError", "Run", "default_out_dir", "read_run", "write_report"]
