"""Site tooling: the MkDocs plugin and the Markdown blocks that render quizzes and labs."""
