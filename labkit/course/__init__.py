"""What the chapters quote: computed figures (figures) and the quizzes' answers (quizzes)."""
