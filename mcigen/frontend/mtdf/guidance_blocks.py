"""Ahma's built-in guidance blocks, verbatim.

Source: paulirotta/ahma at b9bedfb, ``ahma_mcp/src/mcp_service/types.rs`` lines
32-85 (``GuidanceConfig::default``)."""

from __future__ import annotations

BUILT_IN_GUIDANCE_BLOCKS: dict[str, str] = {
    "async_behavior": (
        "**IMPORTANT:** This tool operates asynchronously\n"
        "1. **Immediate Response:** Returns id and status 'started'. "
        "This is NOT YET success\n"
        "2. **Final Result:** Result pushed automatically via MCP notification "
        "when complete\n\n"
        "**Your Instructions:**\n"
        "- DO NOT await for the final result unless you are at end of all tasks "
        "and have already updated the user with 'assume success but verify' "
        "results.\n"
        "- **DO** continue with other tasks that don't depend on this operation\n"
        "- You **MUST** process the future result notification to know if "
        "operation succeeded"
    ),
    "sync_behavior": "This tool runs synchronously and returns results immediately",
    "coordination_tool": (
        "**WARNING:** This is a blocking coordination tool. Use ONLY for final "
        "project validation when no other productive work remains."
    ),
    "python_async": (
        "**IMPORTANT:** This tool operates asynchronously.\n"
        "1. **Immediate Response:** Returns id and status 'started'. NOT success.\n"
        "2. **Final Result:** Result pushed automatically via MCP notification "
        "when complete.\n\n"
        "**Your Instructions:**\n"
        "- DO NOT await for the final result.\n"
        "- **DO** continue with other tasks that don't depend on this operation.\n"
        "- You **MUST** process the future result notification to know if "
        "operation succeeded."
    ),
    "python_sync": "This tool runs synchronously and returns results immediately.",
    "git_operations": "This tool runs synchronously and returns results immediately.",
    "cancellation_restart_hint": (
        "An operation was cancelled. Include the cancellation reason back to the "
        "user, and suggest a tool hint to restart or check status: 1) Call "
        "'status' with the id to confirm state; 2) If appropriate, restart the "
        "tool with the same parameters; 3) Consider 'await' only when results "
        "are actually needed."
    ),
}
