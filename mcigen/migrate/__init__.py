"""``mcigen migrate``: a program written against mci-py's ``MCIClient`` rewritten
into typed calls of the compiled package, every comment and format kept (libcst).

``client.execute("get_weather", {"location": city})`` becomes
``get_weather(location=city)`` with ``from PKG import get_weather`` added, and the
``.result`` step of mci-py's ``ExecutionResult`` is dropped where the result is
only read through it (``r.result.content[0].text`` becomes ``r.content[0].text``:
the package's ``ToolResult`` has the same ``content``, ``isError`` and
``metadata``). A call that cannot be rewritten safely is left as it is and
reported with its place and why.
"""
