"""Text: tokenizers and similarity measures for the guards, tool arguments as JSON, and
neutralising untrusted text for terminals and Markdown."""
