"""(min,+) matrix products and R-Kleene (pandey)."""
