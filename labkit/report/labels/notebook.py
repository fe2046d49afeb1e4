"""The lab notebooks and the terminal's record header: what LabSession prints. (en, fr, zh)"""

WORDS = {
    'notebook.no_record': (
        'No results recorded yet for {lab}: run `make {lab}` on a GPU.',
        "Aucun résultat enregistré pour {lab} pour l'instant : lancez `make {lab}` sur un GPU.",
        '{lab} 尚无记录的结果：请在 GPU 上运行 `make {lab}`。',
    ),
    'notebook.recorded_rule': (
        'RECORDED on {gpu} (CC {cc}, driver {driver}, SM {sm} MHz) at {time}, commit {commit}',
        'ENREGISTRÉ sur {gpu} (CC {cc}, pilote {driver}, SM {sm} MHz) le {time}, commit {commit}',
        '记录于 {gpu}（CC {cc}，驱动 {driver}，SM {sm} MHz），时间 {time}，commit {commit}',
    ),
    'notebook.occupancy': ('{blocks} blocks per SM, occupancy {occupancy}, limited by {limiters}',
                           '{blocks} blocs par SM, occupancy de {occupancy}, limitée par {limiters}',
                           '每个 SM {blocks} 个 block，占用率 {occupancy}，受{limiters}限制'),
    'notebook.occupancy.and': (' and ', ' et ', '和'),
    'notebook.limiter.warps': ('warps per SM', 'les warps par SM', '每 SM warp 数'),
    'notebook.limiter.registers': ('registers', 'les registres', '寄存器'),
    'notebook.limiter.shared_memory': ('shared memory', 'la mémoire partagée', ' shared memory '),
    'notebook.limiter.blocks': ('blocks per SM', 'les blocs par SM', '每 SM block 数'),
    'notebook.no_gpu': (
        'No CUDA GPU found: the labs run in the Numba CUDA simulator (correctness and access patterns only, '
        'no timing).',
        "Pas de GPU CUDA : les labs tournent dans le simulateur CUDA de Numba (justesse et motifs d'accès "
        'seulement, aucune durée).',
        '没有找到 CUDA GPU：lab 在 Numba 的 CUDA 模拟器里运行（只检查正确性和访存模式，不计时）。',
    ),
    'notebook.preview': (
        'Shown on the site: this notebook as it runs without a GPU, with the results recorded on a GPU.',
        "Affiché sur le site : ce notebook tel qu'il s'exécute sans GPU, avec les résultats enregistrés sur GPU.",
        '站点上显示的是：这个 notebook 在没有 GPU 时的运行结果，以及在 GPU 上记录的结果。',
    ),
    'notebook.checks_not_run': (
        '(not run while building the site: in the simulator this cell runs each kernel at small size against '
        'NumPy and prints "ok" or "FAIL" per check)',
        '(non exécutée à la construction du site : dans le simulateur, cette cellule fait tourner chaque noyau '
        'à petite taille face à NumPy et affiche « ok » ou « FAIL » par vérification)',
        '（构建站点时不运行：在模拟器里，这个单元格会以小规模运行每个 kernel 并与 NumPy 对照，每项检查输出“ok”或“FAIL”）',
    ),
    'notebook.download': ('Download this notebook', 'Télécharger ce notebook', '下载这个 notebook'),
    'notebook.run': (
        'Run it in Jupyter, or run the whole lab with',
        "Exécutez-le dans Jupyter, ou lancez tout le lab avec",
        '在 Jupyter 中运行它，或者用下面的命令运行整个 lab：',
    ),
    'notebook.outputs': (
        'The outputs below are what the notebook prints without a GPU, produced when the site was built: the '
        "kernels' checks in the simulator are not run there, and the tables are those recorded on a GPU.",
        'Les sorties ci-dessous sont ce que le notebook affiche sans GPU, produites à la construction du site : '
        'les vérifications des noyaux dans le simulateur n’y sont pas lancées, et les tableaux sont ceux '
        'enregistrés sur GPU.',
        '下面的输出是这个 notebook 在没有 GPU 时打印的内容，在构建站点时生成：其中不运行模拟器里的 kernel 检查，'
        '表格是在 GPU 上记录的结果。',
    ),
    'notebook.output': ('Output', 'Sortie', '输出'),
}
