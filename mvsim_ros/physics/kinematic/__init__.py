"""Bodies moved along prescribed paths: keyframe-animated blocks and actors."""
