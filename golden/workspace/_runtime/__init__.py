"""The call-time support of a generated package, copied into it as ``_runtime``.

Everything here runs inside generated packages: it imports nothing from mcigen and
nothing heavier than pydantic at import time.
"""
