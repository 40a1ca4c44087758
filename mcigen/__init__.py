"""mcigen: compile MCI schemas into typed Python packages."""

__version__ = "0.1.0"
