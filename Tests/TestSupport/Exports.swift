// The plain helpers (folders, seeded random numbers, synthetic media) come with the scene fixtures.
@_exported import TestBasics
