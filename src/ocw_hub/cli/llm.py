"""``ocw-hub prompts``, ``run-llm``, ``parse``: the paper's LLM protocol, offline-first."""
