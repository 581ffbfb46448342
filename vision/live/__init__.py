"""The live table: camera and sources, stillness, the settler and the pipeline that streams annotated frames (runtime)."""
