"""The broker: a package's tools as a tree served through three meta-tools
(:mod:`.meta_tools`), answers truncated to a budget, and pyMCPBroker's HTTP API
(:mod:`.http_api`)."""
