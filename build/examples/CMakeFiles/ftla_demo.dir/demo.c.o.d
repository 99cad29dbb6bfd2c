examples/CMakeFiles/ftla_demo.dir/demo.c.o: /work/main/examples/demo.c \
 /usr/include/stdc-predef.h
