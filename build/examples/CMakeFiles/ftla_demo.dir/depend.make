# Empty dependencies file for ftla_demo.
# This may be replaced when dependencies are built.
