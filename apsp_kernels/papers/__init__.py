"""One module per paper: PAPER (title, citation, file) and METHODS (name -> implementation)."""
