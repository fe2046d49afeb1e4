"""The site's own widgets: quizzes, translation banner, the lab block's frame. (en, fr, zh)"""

WORDS = {
    'lab.notebook_download': ('Download the notebook', 'Télécharger le notebook', '下载 notebook'),
    'lab.open_in_colab': ('Open in Colab', 'Ouvrir dans Colab', '在 Colab 中打开'),
    'lab.colab_without_gpu': (
        'its first cell installs the course; without a GPU attached, the kernels run in the simulator',
        "sa première cellule installe le cours ; sans GPU attaché, les noyaux tournent dans le simulateur",
        '第一个单元会安装本课程；未挂载 GPU 时，kernel 在模拟器中运行'),
    'quiz': ('Self-check', 'Auto-évaluation', '自测'),
    'answer': ('Answer and explanation', 'Réponse et explication', '答案与解析'),
    'right_option': ('Right answer', 'Bonne réponse', '正确答案'),
    'expected': ('Expected value', 'Valeur attendue', '期望值'),
    'right': ('Right!', 'Juste !', '答对了！'),
    'wrong': ('Not quite: read the explanation.', "Pas tout à fait : relisez l'explication.", '不对，请看解析。'),
    'check': ('Check', 'Vérifier', '检查'),
    'quiz.type_a_number': ('Type a number, such as 2048 or 12.5.', 'Entrez un nombre, par exemple 2 048 ou 12,5.',
                           '请输入一个数，例如 2,048 或 12.5。'),
    'quiz.ambiguous': ('“{typed}” can be read two ways: write {decimal} or {grouped}.',
                       '« {typed} » se lit de deux façons : écrivez {decimal} ou {grouped}.',
                       '“{typed}”有两种读法：请写成 {decimal} 或 {grouped}。'),
    'translation.stale_title': ('Translation behind its source', 'Traduction en retard sur sa source', '译文落后于原文'),
    'translation.stale': (
        'The French page changed after this translation was made: parts of it may be missing or out of date here.',
        'La page française a changé depuis cette traduction : certains passages peuvent manquer ou être dépassés ici.',
        '这篇译文完成之后，法文原文又有过修改：这里可能缺少部分内容，或有内容已经过时。',
    ),
    'lab.measured_on': (
        'Measured on {gpu} on {date} (compute capability {cc}, SM clock {sm} MHz during the run); the tables '
        'and figures below are that record.',
        'Mesuré sur un {gpu} le {date} (capacité de calcul {cc}, SM à {sm} MHz pendant la mesure) ; les tableaux '
        'et les figures ci-dessous sont cet enregistrement.',
        '{date}在 {gpu} 上测得（计算能力 {cc}，测量时 SM 频率 {sm} MHz）；下面的表格和图就是这次记录。',
    ),
    'lab.provenance': (
        'Full provenance: driver, clocks, library versions, commit',
        'Provenance complète : pilote, horloges, versions des bibliothèques, commit',
        '完整来源信息：驱动、时钟、库版本、commit',
    ),
    'lab.provenance.driver': ('driver', 'pilote', '驱动'),
    'lab.provenance.memory': ('memory', 'mémoire', '显存'),
    'lab.no_results': (
        'No results recorded yet: run',
        "Aucun résultat enregistré pour l'instant : lancez",
        '尚无记录的结果：请运行',
    ),
}
