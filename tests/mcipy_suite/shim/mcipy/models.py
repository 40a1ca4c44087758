"""Names of mci-py's internal models, which mcigen does not have."""


class MCISchema:
    """mci-py's pydantic model of a whole schema; mcigen's IR does its job."""


class Toolset:
    """mci-py's pydantic model of a toolset reference."""
