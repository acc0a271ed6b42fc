"""The hello-box program: greets someone, then says which interpreter ran it
and with which arguments.  `--name NAME` may be given more than once (the
box's defaultArgs come first, then the caller's): the last one wins."""
import json
import os
import platform
import sys

args = sys.argv[1:]
name = "world"
for i, arg in enumerate(args[:-1]):
    if arg == "--name":
        name = args[i + 1]

greeting = os.environ.get("HELLO_GREETING", "hello")
print(f"{greeting}, {name}!")
print(f"python {platform.python_version()} at {sys.executable}")
print(f"arguments {json.dumps(args)}")
