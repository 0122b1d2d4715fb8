"""adhere: measure how well LLM coding agents follow instructions."""

__version__ = "0.1.0"
