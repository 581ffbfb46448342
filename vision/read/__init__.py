"""What a frame becomes: the detector and classifiers, the read path's stages and the reading's types (runtime, no torch)."""
