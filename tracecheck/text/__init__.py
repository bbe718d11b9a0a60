"""Text: tokenizers and similarity measures for the guards, tool arguments as JSON,
neutralising untrusted text for terminals and Markdown, "did you mean" for a misspelt
name (``suggest``), and the tables one run remembers (``memo``)."""
