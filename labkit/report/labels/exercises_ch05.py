"""Chapter 5's exercises: titles, hints and the divergence metric. (en, fr, zh)"""

WORDS = {
    'exercise.metric.active_threads': (
        'active threads per warp instruction (of 32)', 'threads actifs par instruction de warp (sur 32)',
        '每条 warp 指令的活跃线程数（满数 32）',
    ),
    'exercise.05-mystery-a.title': (
        'Mystery A, diagnosed and fixed', 'Le mystère A, diagnostiqué et réparé', '神秘 kernel A：诊断并修复',
    ),
    'exercise.05-mystery-a.hint.correct': (
        'y must equal a·x element for element. The matrix is not square: the row index runs up to rows − 1, the '
        'column index up to cols − 1; check which of the two each division and each modulo gives.',
        'y doit valoir a·x, élément par élément. La matrice n’est pas carrée : l’indice de ligne va jusqu’à '
        'rows − 1, celui de colonne jusqu’à cols − 1 ; vérifiez lequel des deux donne chaque division et chaque '
        'modulo.',
        'y 必须逐元素等于 a·x。矩阵不是方阵：行下标最大到 rows − 1，列下标最大到 cols − 1；'
        '检查每个除法和每个取模给出的是哪一个。',
    ),
    'exercise.05-mystery-a.hint.stores': (
        'The stores take the same indices as the loads: once consecutive threads take consecutive columns of a '
        'row, the writes to y are coalesced too.',
        'Les écritures prennent les mêmes indices que les lectures : dès que des threads consécutifs prennent des '
        'colonnes consécutives d’une ligne, les écritures dans y sont coalescées elles aussi.',
        '写操作用的是和读操作相同的下标：只要连续的线程取同一行中连续的列，对 y 的写入也就合并了。',
    ),
    'exercise.05-mystery-a.hint.sectors': (
        'Coalescing, the first item of the diagnosis: in a row-major matrix, consecutive threads must take '
        'consecutive columns of one row, not consecutive rows of one column. With a 2-D grid, x (the index that '
        'varies fastest within a warp) must be the column.',
        'La coalescence, premier élément du diagnostic : dans une matrice rangée par lignes, des threads '
        'consécutifs doivent prendre des colonnes consécutives d’une même ligne, pas des lignes consécutives d’une '
        'même colonne. Avec une grille 2D, x (l’indice qui varie le plus vite dans un warp) doit être la colonne.',
        '合并访存，诊断中的第一条：在按行存储的矩阵里，连续的线程应当取同一行中连续的列，而不是同一列中'
        '连续的行。如果用二维 grid，x（warp 内变化最快的下标）必须对应列。',
    ),
    'exercise.05-mystery-a.hint.time': (
        'Coalesced and right, yet slower than ours: estimate t_min from the 8 bytes each element moves, then look '
        'at your launch (enough blocks to fill every SM?) and at what each thread computes besides its load and '
        'its store.',
        'Coalescé et juste, et pourtant plus lent que le nôtre : estimez t_min à partir des 8 octets que déplace '
        'chaque élément, puis regardez votre lancement (assez de blocs pour occuper tous les SM ?) et ce que '
        'chaque thread calcule en plus de son chargement et de son écriture.',
        '合并访存、结果正确，却仍比我们的慢：按每个元素搬运 8 字节估算 t_min，再看看你的启动配置（block'
        '够不够占满所有 SM？），以及每个线程除了一次读取和一次写入之外还算了什么。',
    ),
    'exercise.05-mystery-h.title': (
        'Mystery H, diagnosed and fixed', 'Le mystère H, diagnostiqué et réparé', '神秘 kernel H：诊断并修复',
    ),
    'exercise.05-mystery-h.hint.correct': (
        'Element i of y must follow the path of its own parity in x: 128 steps (A, B) if i is even, 64 double '
        'steps (A2, B2) then (A3, B3) if it is odd. If you change which thread takes which element, check that '
        'every element is taken exactly once, up to the last one, and that the bounds test is on the element’s '
        'index.',
        'L’élément i de y doit suivre la suite de sa propre parité dans x : 128 pas (A, B) si i est pair, '
        '64 doubles pas (A2, B2) puis (A3, B3) s’il est impair. Si vous changez quel thread prend quel élément, '
        'vérifiez que chaque élément est pris exactement une fois, jusqu’au dernier, et que le test de bornes '
        'porte sur l’indice de l’élément.',
        'y 的第 i 个元素必须按它在 x 中下标的奇偶走对应的链：i 为偶数走 128 步 (A, B)，为奇数走 64 个双步 '
        '(A2, B2)、(A3, B3)。如果改变了线程和元素的对应关系，检查每个元素都恰好被处理一次，直到最后一个，'
        '并且越界判断针对的是元素的下标。',
    ),
    'exercise.05-mystery-h.hint.divergence': (
        'Divergence: the threads of one warp take different branches, so the warp runs both, each time with part '
        'of its threads idle (ncu’s ThreadDivergence rule). Give each warp elements of one parity only: for '
        'instance, a pair of warps takes 64 consecutive elements, the first warp the even ones, the second the '
        'odd ones. A split at 16 threads is still inside the warp.',
        'La divergence : les threads d’un même warp prennent des branches différentes, et le warp les exécute '
        'toutes les deux, chaque fois avec une partie de ses threads inactifs (la règle ThreadDivergence de ncu). '
        'Donnez à chaque warp des éléments d’une seule parité : par exemple, une paire de warps prend '
        '64 éléments consécutifs, le premier warp les pairs, le second les impairs. Une séparation à 16 threads '
        'reste à l’intérieur du warp.',
        '分歧：同一个 warp 里的线程走了不同的分支，warp 只好把两个分支都执行一遍，每次都有一部分线程闲着'
        '（ncu 的 ThreadDivergence 规则）。让每个 warp 只处理一种奇偶的元素：例如每两个 warp 负责 64 个'
        '连续元素，第一个 warp 处理偶数位，第二个处理奇数位。以 16 个线程为界划分，分歧仍在 warp 内部。',
    ),
    'exercise.05-mystery-h.hint.time': (
        'Every warp takes one path now, yet it is slower than ours: the kernel is bound by instruction issue, so '
        'count what a warp issues per element; a select or an index computation added inside the loop can cost '
        'as much as divergence did.',
        'Chaque warp ne suit plus qu’un chemin, et pourtant c’est plus lent que le nôtre : le noyau est limité '
        'par l’émission des instructions, comptez donc ce qu’un warp émet par élément ; une sélection ou un '
        'calcul d’indice ajouté dans la boucle peut coûter autant que la divergence.',
        '每个 warp 都只走一条路径了，却还是比我们的慢：这个 kernel 受限于指令发射，所以数一数每个元素要让 '
        'warp 发射多少条指令；在循环里多加一次选择或一次下标计算，代价可能和分歧一样大。',
    ),
}
