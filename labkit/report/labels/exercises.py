"""The exercises' checker and block: criteria, verdicts, problems, notes. (en, fr, zh)

Sentences with ``{placeholders}`` are filled by labkit.exercises.render.
"""

WORDS = {
    # ----- what is measured ----------------------------------------------------------------------
    'exercise.metric.correct': (
        'output right (NumPy, guard zones, inputs untouched)',
        'sortie juste (NumPy, zones de garde, entrées intactes)',
        '输出正确（对照 NumPy、保护区、输入未被改动）',
    ),
    'exercise.metric.dram_bytes_per_element': (
        'DRAM bytes per element (sum over launches)',
        'octets DRAM par élément (somme des lancements)',
        '每个元素的 DRAM 字节数（各次启动之和）',
    ),
    'exercise.metric.launches': ('kernel launches', 'lancements de noyaux', 'kernel 启动次数'),
    'exercise.metric.host_written': (
        'output elements written by the host', 'éléments de sortie écrits par l’hôte', '由主机写入的输出元素数',
    ),
    'exercise.hint.host_written': (
        'The exercise is about its kernels: compute the output on the GPU, in your kernels. Copying the inputs '
        'to the host, computing with NumPy and copying the answer back passes none of its criteria.',
        'L’exercice porte sur ses noyaux : calculez la sortie sur le GPU, dans vos noyaux. Copier les entrées '
        'vers l’hôte, calculer avec NumPy et recopier la réponse ne satisfait aucun de ses critères.',
        '这个练习考的是 kernel：请在 GPU 上、用你的 kernel 计算输出。把输入复制到主机、用 NumPy 计算、'
        '再把结果复制回去，不满足任何一项标准。',
    ),
    'exercise.metric.inputs_unread': (
        'input elements no kernel read', 'éléments d’entrée lus par aucun noyau', '没有被任何 kernel 读取的输入元素数',
    ),
    'exercise.hint.inputs_unread': (
        'Your kernels must read the inputs: an answer computed elsewhere (on the host, then copied to the '
        'device) and moved into the output by a kernel is not computed by your kernels.',
        'Vos noyaux doivent lire les entrées : une réponse calculée ailleurs (sur l’hôte, puis copiée vers le '
        'GPU) et recopiée dans la sortie par un noyau n’est pas calculée par vos noyaux.',
        '你的 kernel 必须读取输入：在别处（主机上）算好、复制到 GPU、再由 kernel 搬进输出的结果，'
        '不是你的 kernel 算出来的。',
    ),
    'exercise.metric.atomics_per_element': (
        'atomic operations per element', 'opérations atomiques par élément', '每个元素的原子操作数',
    ),
    'exercise.metric.load_sectors_per_request': (
        'sectors per request, global loads', 'secteurs par requête, lectures globales', '全局读取：每次请求的 sector 数',
    ),
    'exercise.metric.store_sectors_per_request': (
        'sectors per request, global stores', 'secteurs par requête, écritures globales', '全局写入：每次请求的 sector 数',
    ),
    'exercise.metric.shared_conflicts_per_request': (
        'bank conflicts per shared-memory access', 'conflits de banc par accès en mémoire partagée',
        '每次 shared memory 访问的 bank 冲突数',
    ),
    'exercise.metric.time_ratio': (
        'your time / ours (median of 3 rounds)', 'votre temps / le nôtre (médiane de 3 tours)',
        '你的时间 / 我们的时间（3 轮的中位数）',
    ),
    'exercise.metric.gbps': (
        'GB/s at the floor\'s bytes (yours)', 'Go/s aux octets du plancher (le vôtre)', '按下限字节数计的 GB/s（你的）',
    ),
    'exercise.metric.registers': ('registers per thread', 'registres par thread', '每线程寄存器数'),
    'exercise.metric.local_bytes': (
        'local memory per thread (bytes)', 'mémoire locale par thread (octets)', '每线程 local memory（字节）',
    ),
    # ----- verdicts --------------------------------------------------------------------------------
    'exercise.status.pass': ('pass', 'ok', '通过'),
    'exercise.status.fail': ('FAIL', 'ÉCHEC', '未通过'),
    'exercise.status.skipped': ('skip', 'sauté', '跳过'),
    'exercise.status.shown': ('info', 'info', '信息'),
    'exercise.where.simulator': ('simulator', 'simulateur', '模拟器'),
    'exercise.where.gpu': ('GPU', 'GPU', 'GPU'),
    'exercise.target.at_most': ('target ≤ {target}', 'cible ≤ {target}', '目标 ≤ {target}'),
    'exercise.target.at_least': ('target ≥ {target}', 'cible ≥ {target}', '目标 ≥ {target}'),
    'exercise.note.gpu_only': ('measured on a GPU only', 'mesuré sur GPU seulement', '仅在 GPU 上测量'),
    'exercise.note.wrong_in_simulator': (
        'not measured: the output is wrong in the simulator', 'non mesuré : la sortie est fausse dans le simulateur',
        '未测量：模拟器中的输出有误',
    ),
    'exercise.note.wrong_on_gpu': (
        'not measured: the output is wrong on the GPU', 'non mesuré : la sortie est fausse sur le GPU',
        '未测量：GPU 上的输出有误',
    ),
    'exercise.reread': (
        'reread chapter {number}, "{title}" ({url})', 'relire le chapitre {number}, « {title} » ({url})',
        '重读第 {number} 章“{title}”（{url}）',
    ),
    # ----- what went wrong with an output ----------------------------------------------------------
    'exercise.problem.past_end': (
        'wrote past the end of `{name}` (up to {count} elements after it)',
        'écriture après la fin de `{name}` (jusqu’à {count} éléments au-delà)',
        '越过 `{name}` 的末尾写入（最远超出 {count} 个元素）',
    ),
    'exercise.problem.before_start': (
        'wrote before the start of `{name}` ({count} elements before it)',
        'écriture avant le début de `{name}` ({count} éléments avant)',
        '在 `{name}` 的起点之前写入（提前 {count} 个元素）',
    ),
    'exercise.problem.input_changed': (
        'changed the input `{name}` ({count} elements)',
        'a modifié l’entrée `{name}` ({count} éléments)',
        '改动了输入 `{name}`（{count} 个元素）',
    ),
    'exercise.problem.never_written': (
        '{count} of the {size} elements of `{name}` still hold the poison they arrived with: never written, '
        'or computed from it (e.g. {name}[{index}])',
        '{count} des {size} éléments de `{name}` contiennent encore le poison reçu au départ : jamais écrits, '
        'ou calculés à partir de lui (par exemple {name}[{index}])',
        '`{name}` 的 {size} 个元素中有 {count} 个仍是传入时的“毒值”：从未被写入，或由它算出（例如 {name}[{index}]）',
    ),
    'exercise.problem.differs': (
        '{count} of the {size} elements of `{name}` differ from NumPy; first {name}[{index}] = {got}, NumPy {want}',
        '{count} des {size} éléments de `{name}` diffèrent de NumPy ; d’abord {name}[{index}] = {got}, NumPy {want}',
        '`{name}` 的 {size} 个元素中有 {count} 个与 NumPy 不同；第一个 {name}[{index}] = {got}，NumPy 为 {want}',
    ),
    # ----- the run and its outcome -----------------------------------------------------------------
    'exercise.header': ('Exercise {id} · {file}', 'Exercice {id} · {file}', '练习 {id} · {file}'),
    'exercise.run.simulator': (
        'In the Numba CUDA simulator, {elements} elements (fresh random inputs)',
        'Dans le simulateur CUDA de Numba, {elements} éléments (entrées aléatoires neuves)',
        '在 Numba 的 CUDA 模拟器中，{elements} 个元素（每次新的随机输入）',
    ),
    'exercise.run.gpu': (
        'On {gpu}, {elements} elements: ours {ours} µs, yours {yours} µs (median of {repeats}, '
        'SM {sm} MHz, memory {memory} MHz)',
        'Sur {gpu}, {elements} éléments : le nôtre {ours} µs, le vôtre {yours} µs (médiane de {repeats}, '
        'SM {sm} MHz, mémoire {memory} MHz)',
        '在 {gpu} 上，{elements} 个元素：我们的 {ours} 微秒，你的 {yours} 微秒（{repeats} 次的中位数，'
        'SM {sm} MHz，显存 {memory} MHz）',
    ),
    'exercise.run.no_gpu_run': (
        'On a GPU:', 'Sur un GPU :', '在 GPU 上：',
    ),
    'exercise.outcome.passed': (
        'Every criterion passes.', 'Tous les critères sont atteints.', '所有标准均已通过。',
    ),
    'exercise.outcome.passed_without_gpu': (
        'Every criterion the simulator can check passes; those marked "GPU" need a GPU.',
        'Tous les critères que le simulateur peut vérifier sont atteints ; ceux marqués « GPU » demandent un GPU.',
        '模拟器能检查的标准都已通过；标为“GPU”的标准需要 GPU。',
    ),
    'exercise.outcome.failed': (
        'Not met: {count} of the {checked} criteria checked. The hints above say where to look.',
        'Non atteints : {count} des {checked} critères vérifiés. Les indices ci-dessus disent où chercher.',
        '已检查的 {checked} 项标准中有 {count} 项未达到。上面的提示指明了该看哪里。',
    ),
    'exercise.progress.simulator': (
        'running your code in the simulator: {seconds} s', 'votre code tourne dans le simulateur : {seconds} s',
        '你的代码正在模拟器中运行：{seconds} 秒',
    ),
    'exercise.progress.gpu': (
        'running your code on the GPU: {seconds} s', 'votre code tourne sur le GPU : {seconds} s',
        '你的代码正在 GPU 上运行：{seconds} 秒',
    ),
    'exercise.progress.kernel': (
        'kernel {kernel}, {blocks} blocks of {threads} threads', 'noyau {kernel}, {blocks} blocs de {threads} threads',
        'kernel {kernel}，{blocks} 个 block，每个 {threads} 个线程',
    ),
    'exercise.progress.host': (
        'host code, {launches} launches done', 'code hôte, {launches} lancements terminés',
        '主机代码，已完成 {launches} 次启动',
    ),
    'exercise.run.orphans_not_followed': (
        'Note: on this system (no subreaper, e.g. macOS) the check kills the process groups of your code it saw; '
        'a process your code starts in a new session and leaves at once may outlive the check.',
        'Note : sur ce système (sans subreaper, par exemple macOS), la vérification tue les groupes de processus de '
        'votre code qu’elle a vus ; un processus que votre code lance dans une nouvelle session et quitte aussitôt '
        'peut lui survivre.',
        '注意：在这个系统上（没有 subreaper，例如 macOS），检查会杀掉它看到的你的代码的进程组；你的代码在新会话中启动、'
        '随即脱离的进程，可能在检查结束后仍在运行。',
    ),
    'exercise.printed.cut': (
        'labkit: your code printed {total} bytes; the check showed the first {shown} (print less: a few values, '
        'or a summary)',
        'labkit : votre code a affiché {total} octets ; la vérification en a montré les {shown} premiers (affichez '
        'moins : quelques valeurs, ou un résumé)',
        'labkit：你的代码输出了 {total} 字节，检查只显示了前 {shown} 字节（少打印一些：几个值，或一个汇总）',
    ),
    'exercise.phase.load': ('loading your file', 'chargement de votre fichier', '正在加载你的文件'),
    'exercise.phase.check': (
        'checking your output at {elements} elements (your kernels compile first)',
        'vérification de votre sortie sur {elements} éléments (vos noyaux sont d’abord compilés)',
        '在 {elements} 个元素上检查你的输出（先编译你的 kernel）',
    ),
    'exercise.phase.time': (
        'timing round {round} of {rounds}: ours, then yours', 'chronométrage, tour {round} sur {rounds} : le nôtre, '
        'puis le vôtre', '计时第 {round} 轮（共 {rounds} 轮）：先我们的，再你的',
    ),
    'exercise.outcome.error': (
        'The check stopped at this mistake in your file:', 'La vérification s’est arrêtée sur cette erreur de votre fichier :',
        '检查在你文件中的这个错误处停止：',
    ),
    # ----- the chapter's block -----------------------------------------------------------------------
    'exercise.block.title': ('Exercise', 'Exercice', '练习'),
    'exercise.block.file': ('Your file: ', 'Votre fichier : ', '你的文件：'),
    'exercise.block.check': ('Check it: ', 'Pour vérifier : ', '检查：'),
    'exercise.block.criteria': ('What it is held to', 'Critères', '检查标准'),
    'exercise.block.criterion': ('criterion', 'critère', '标准'),
    'exercise.block.target': ('target', 'cible', '目标'),
    'exercise.block.where': ('measured in', 'mesuré dans', '测量环境'),
    'exercise.block.hint': ('Hint: {criterion}', 'Indice : {criterion}', '提示：{criterion}'),
    'exercise.block.solution': ('Our solution', 'Notre solution', '参考答案'),
    'exercise.block.must_pass': ('must pass', 'doit passer', '必须通过'),
    # ----- the solutions' comments, in the file's order (labkit.site.exercise_block.comments_for_page) -----
    'exercise.comment.aos.1': ('w // FIELDS: FIELDS = 8 = 2**3', 'w // FIELDS : FIELDS = 8 = 2**3',
                               'w // FIELDS：FIELDS = 8 = 2**3'),
    'exercise.comment.aos.2': ('w % FIELDS', 'w % FIELDS', 'w % FIELDS'),
    'exercise.comment.ilp.1': ('Independent loads in flight per thread.',
                               'Chargements indépendants en vol par thread.', '每个线程在途的独立 load 数。'),
    'exercise.comment.reduce.1': (
        'At most this many blocks: enough to fill every SM of a large GPU several times over.',
        'Au plus ce nombre de blocs : de quoi remplir plusieurs fois chaque SM d’un grand GPU.',
        'block 数的上限：足以把大型 GPU 的每个 SM 填满好几遍。',
    ),
    'exercise.comment.reduce.2': (
        'Each thread sums at least this many elements before the block reduction.',
        'Chaque thread additionne au moins ce nombre d’éléments avant la réduction du bloc.',
        '在 block 内归约之前，每个线程至少先累加这么多个元素。',
    ),
    'exercise.comment.register_tile.1': ("16 threads along a block's columns (and rows)",
                                         '16 threads le long des colonnes (et des lignes) d’un bloc',
                                         'block 的列方向（以及行方向）各 16 个线程'),
    'exercise.comment.register_tile.2': ('sa[m, k]', 'sa[m, k]', 'sa[m, k]'),
    'exercise.comment.register_tile.3': ('sb[k, n]', 'sb[k, n]', 'sb[k, n]'),
    'exercise.comment.shared_padded.1': ("a shared array's shape is a compile-time constant",
                                         'la forme d’un tableau partagé est une constante de compilation',
                                         'shared 数组的形状必须是编译期常量'),
    'exercise.comment.shared_padded.2': ('sa[k, m], one word of padding per row',
                                         'sa[k, m], un mot de remplissage par ligne', 'sa[k, m]，每行填充一个字'),
    'exercise.comment.transpose.1': ("a shared array's shape is a compile-time constant",
                                     'la forme d’un tableau partagé est une constante de compilation',
                                     'shared 数组的形状必须是编译期常量'),
}
