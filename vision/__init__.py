"""Camera frames -> detected dice and cards with faces and colours. No game logic."""
