# stand-in: the tools tests never run it
