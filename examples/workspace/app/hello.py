import os, sys
name = sys.argv[sys.argv.index("--name") + 1] if "--name" in sys.argv else "world"
print(os.environ.get("HELLO_GREETING", "hello") + ", " + name)
