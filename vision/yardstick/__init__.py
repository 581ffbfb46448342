"""The yardstick: an independent, physically based renderer of labelled table scenes (Blender/Cycles).

It shares no code, fonts, textures or designs with vision/synth, so the reader can be measured on
pictures unlike anything it trained on. The runtime never imports this package; rendering needs the
``render`` extra (bpy) and Debian's Japanese fonts. ``geometry``, ``designs``, ``splits`` and
``faces`` import without bpy; ``scene`` and ``render_cmd`` need it.
"""
