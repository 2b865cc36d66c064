"""The compiled fast path: steps of the physics and the periodic output they owe, in one compiled call.

A front end (the ROS node) keeps its outgoing messages serialized, one byte array per stream; the compiled loops
here run the physics' compiled steps straight up to the next instant something is due, write the numbers of that
instant into those bytes (`fields.write_fields`) and deliver them through a C function (`delivery`), without
returning to Python. Nothing here knows ROS: a front end describes its streams as named data (`StreamBuffers`,
`Delivery`, schedules, `ScanSink`) and binds its delivery function once (`delivery.bind`).

Modules: `fields` (serialized numbers, time stamps), `delivery` (the C delivery call), `schedules` (when a stream
is next due), `sinks` (a front end's clock and vehicle streams), `vehicle_values` (the numbers of the vehicles'
odometry, transform and ground truth), `scans` (2D lidar scans measured and delivered from the steps), `streams`
(the step loop with its clock and vehicle streams and the scans).
"""
