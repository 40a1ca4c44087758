"""Names of mci-py's internal parser, which mcigen does not have."""


class SchemaParser:
    """mci-py's schema parser; mcigen's frontend does its job."""


class SchemaParserError(Exception):
    """mci-py's parser's exception."""
