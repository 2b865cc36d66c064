"""Small shared things every layer uses: compilation settings, rotations, due-time schedules."""
