// Self-check quizzes rendered by labkit's `/// quiz` block. Without JavaScript the answer
// stays readable in its <details>; with it, answering says right or wrong at once.
(function () {
  function reveal(quiz, right) {
    quiz.classList.remove("quiz--right", "quiz--wrong");
    quiz.classList.add(right ? "quiz--right" : "quiz--wrong");
    const feedback = quiz.querySelector(".quiz-feedback");
    feedback.textContent = right ? quiz.dataset.labelRight : quiz.dataset.labelWrong;
    quiz.querySelector(".quiz-answer").open = true;
    // A case's diagnosis waits for its quiz (`/// diagnosis` with `after:`): answered, it shows.
    document.querySelectorAll(`[data-after-quiz="${quiz.dataset.quizId}"]`).forEach((block) => {
      block.classList.remove("case--locked");
    });
  }

  function setUpChoice(quiz) {
    quiz.querySelectorAll("button.quiz-option").forEach((button) => {
      button.addEventListener("click", () => {
        quiz.querySelectorAll("li[data-option]").forEach((li) => {
          li.classList.remove("quiz-option--chosen", "quiz-option--right");
        });
        const chosen = button.closest("li");
        chosen.classList.add("quiz-option--chosen");
        quiz.querySelector(`li[data-option="${quiz.dataset.answer}"]`).classList.add("quiz-option--right");
        reveal(quiz, button.value === quiz.dataset.answer);
      });
    });
  }

  // Accepts "130,5", "130.5" or "130 Mo": the first number typed, decimal comma or point.
  function parseNumber(text) {
    const match = text.replace(/\s/g, "").replace(",", ".").match(/-?\d+(\.\d+)?/);
    return match ? parseFloat(match[0]) : NaN;
  }

  function setUpNumeric(quiz) {
    const form = quiz.querySelector("form.quiz-numeric");
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const typed = parseNumber(form.querySelector("input").value);
      const expected = parseFloat(quiz.dataset.answer);
      const tolerance = parseFloat(quiz.dataset.tolerance);
      reveal(quiz, Math.abs(typed - expected) <= tolerance * Math.abs(expected));
    });
  }

  document$.subscribe(() => {
    // Without this script the diagnosis stays readable, folded; with it, hidden until answered.
    document.querySelectorAll("[data-after-quiz]").forEach((block) => {
      if (block.dataset.lockReady) return;
      block.dataset.lockReady = "1";
      block.classList.add("case--locked");
    });
    document.querySelectorAll(".quiz[data-quiz-kind]").forEach((quiz) => {
      if (quiz.dataset.ready) return;
      quiz.dataset.ready = "1";
      (quiz.dataset.quizKind === "choice" ? setUpChoice : setUpNumeric)(quiz);
    });
  });
})();
