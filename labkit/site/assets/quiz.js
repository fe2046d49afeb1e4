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

  // labkit.quizzes.readings, the same rule: the numbers a typed answer can mean, in the ways
  // the site prints numbers in the page's language (2048, 2 048 with any space, 2,048, 1,234.5,
  // 130,5, 130.5), optionally followed by the quiz's unit; French "2,048" has both readings.
  const SPACES = /[\s\u00a0\u202f\u2009]+/g;
  const SPACE_GROUPED = /^\d{1,3}(?: \d{3})+(?:[.,]\d+)?$/;
  const COMMA_GROUPED = /^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;
  const PLAIN = /^\d+(?:[.,]\d+)?$/;

  function unitSpellings(unit) {
    const spelled = new Set([unit.trim()]);
    for (const u of [...spelled]) spelled.add(u.replace(/^个/, "").trim());
    for (const u of [...spelled]) if (u.endsWith("s") && u.length > 2) spelled.add(u.slice(0, -1));
    return [...spelled].filter((u) => u).sort((a, b) => b.length - a.length);
  }

  function readings(typed, lang, unit) {
    let text = typed.replace(SPACES, " ").trim();
    for (const spelled of unitSpellings(unit || "")) {
      if (text.toLowerCase().endsWith(spelled.toLowerCase())) {
        text = text.slice(0, text.length - spelled.length).trim();
        break;
      }
    }
    let sign = 1;
    if (text.startsWith("-") || text.startsWith("\u2212")) { sign = -1; text = text.slice(1).trim(); }
    const found = [];
    if (SPACE_GROUPED.test(text)) found.push(parseFloat(text.replace(/ /g, "").replace(",", ".")));
    if (COMMA_GROUPED.test(text)) found.push(parseFloat(text.replace(/,/g, "")));
    if (PLAIN.test(text) && (lang === "fr" || !text.includes(",") || !COMMA_GROUPED.test(text))) {
      found.push(parseFloat(text.replace(",", ".")));
    }
    return [...new Set(found)].map((value) => sign * value);
  }

  function setUpNumeric(quiz) {
    const form = quiz.querySelector("form.quiz-numeric");
    const lang = quiz.dataset.lang;
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const values = readings(form.querySelector("input").value, lang, quiz.dataset.unit || "");
      if (values.length === 0) {   // not a number: say so, and keep the answer folded
        quiz.classList.remove("quiz--right", "quiz--wrong");
        quiz.querySelector(".quiz-feedback").textContent = quiz.dataset.labelNumber;
        return;
      }
      const expected = parseFloat(quiz.dataset.answer);
      const tolerance = parseFloat(quiz.dataset.tolerance);
      reveal(quiz, values.some((value) => Math.abs(value - expected) <= tolerance * Math.abs(expected)));
    });
  }

  window.labkitQuiz = { readings };

  if (typeof document$ === "undefined") return;   // a page without Material: the parser only
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
