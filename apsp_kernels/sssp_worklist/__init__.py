"""Work-efficient single-source shortest paths: an asynchronous worklist in one persistent launch."""
