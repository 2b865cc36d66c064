"""World elements read into typed specs: vehicles, blocks, sensors, joints, options."""
