"""Camera frames -> detected dice and cards with faces and colours. No game logic.

The package is arranged in rooms (read, live, demo, teach, synth, yardstick, train,
evaluate, commands); vision/README.md maps them and a frame's way through them.
"""
