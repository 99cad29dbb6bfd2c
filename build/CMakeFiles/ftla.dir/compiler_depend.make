# Empty compiler generated dependencies file for ftla.
# This may be replaced when dependencies are built.
