"""Code that runs inside the sandbox: bound flat into /grader, it imports only what is bound."""
