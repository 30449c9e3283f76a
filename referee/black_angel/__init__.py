"""Black Angel (Pearl Games): the engine package. See RULES_NOTES.md for designed content."""
