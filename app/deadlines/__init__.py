"""Due dates and extensions: below submissions and quizzes, which flag late work by them."""
