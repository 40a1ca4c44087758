"""A package's tools in the shapes of the frameworks agents are built with, one
module per framework, each importing its framework (an extra of the runtime) when
it is imported itself, never when the package is:

- :mod:`.anthropic`: the Anthropic SDK's tool definitions, a dispatcher of its
  ``tool_use`` blocks, and tools for its tool runner;
- :mod:`.pydantic_ai`: a PydanticAI toolset;
- :mod:`.langchain`: LangChain structured tools;
- :mod:`.openai_agents`: the OpenAI Agents SDK's function tools.

Each takes the package (its import name or its module) and the filters of
``serve`` (see :mod:`.toolbox`).
"""
