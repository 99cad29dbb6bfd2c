file(REMOVE_RECURSE
  "libftla.a"
)
