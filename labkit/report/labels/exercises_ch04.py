"""Chapter 4's exercises: titles and hints. (en, fr, zh)"""

WORDS = {
    'exercise.04-transpose.title': (
        'A fault read in the profile: the transpose', 'Un défaut lu dans le profil : la transposée',
        '从剖析结果里找出缺陷：转置',
    ),
    'exercise.04-transpose.hint.correct': (
        'target must be the exact transpose of source: target[j, i] = source[i, j]. Neither side of the matrix is '
        'a multiple of 32: check the bounds test of every access, and that every element is written once.',
        'target doit être la transposée exacte de source : target[j, i] = source[i, j]. Aucun côté de la matrice '
        'n’est un multiple de 32 : vérifiez le test de bornes de chaque accès, et que chaque élément est écrit '
        'une fois.',
        'target 必须与 source 的转置逐元素相等：target[j, i] = source[i, j]。矩阵的两条边都不是 32 的倍数：'
        '检查每个访问的越界判断，并确保每个元素恰好写一次。',
    ),
    'exercise.04-transpose.hint.stores': (
        'This is the counter behind the profile’s UncoalescedGlobalAccess: the warp’s stores still touch one '
        'sector per thread, 4 useful bytes out of 32. Neighbouring threads must write neighbouring addresses of '
        'target: read a tile along the rows of source into shared memory, then write it along the rows of target.',
        'C’est le compteur derrière la règle UncoalescedGlobalAccess du profil : les écritures du warp touchent '
        'encore un secteur par thread, 4 octets utiles sur 32. Des threads voisins doivent écrire des adresses '
        'voisines de target : lisez une tuile le long des lignes de source en mémoire partagée, puis écrivez-la le '
        'long des lignes de target.',
        '这正是剖析结果中 UncoalescedGlobalAccess 规则背后的计数器：warp 的写操作仍然每个线程占一个 sector，'
        '32 字节里只有 4 字节有用。相邻线程必须写 target 中相邻的地址：先沿 source 的行把一个 tile 读进'
        'shared memory，再沿 target 的行把它写出去。',
    ),
    'exercise.04-transpose.hint.loads': (
        'The stores may be coalesced now, but the loads are not: swapping the indices moves the stride from the '
        'writes to the reads, and ncu reports the same rule on the load’s line. Both sides must be coalesced: that '
        'is what the tile in shared memory is for.',
        'Les écritures sont peut-être coalescées, mais plus les lectures : échanger les indices déplace le pas des '
        'écritures vers les lectures, et ncu signale la même règle, sur la ligne du chargement. Les deux côtés '
        'doivent être coalescés : c’est à cela que sert la tuile en mémoire partagée.',
        '写操作也许已经合并了，读操作却没有：交换下标只是把步长从写搬到了读，ncu 会在读取那一行报告同一条'
        '规则。读写两边都必须合并：shared memory 里的 tile 正是为此而设。',
    ),
    'exercise.04-transpose.hint.conflicts': (
        'The repair brought a new fault, which a second profile shows (UncoalescedSharedAccess: more '
        'shared-memory wavefronts than the ideal): reading a column of a 32 × 32 tile puts the 32 threads of a '
        'warp in one bank. Pad each row of the tile by one float ([32][33]).',
        'La réparation a apporté un nouveau défaut, qu’un second profil montre (UncoalescedSharedAccess : plus de '
        'wavefronts en mémoire partagée que l’idéal) : lire une colonne d’une tuile de 32 × 32 place les 32 '
        'threads d’un warp dans le même banc. Ajoutez à chaque ligne de la tuile un flottant de rembourrage '
        '([32][33]).',
        '这次修正带来了新的缺陷，再剖析一次就能看到（UncoalescedSharedAccess：shared memory 的 wavefront 多于'
        '理想值）：按列读取 32 × 32 的 tile 时，一个 warp 的 32 个线程落在同一个 bank。给 tile 的每行多填充'
        '一个 float（[32][33]）。',
    ),
    'exercise.04-transpose.hint.time': (
        'Right and coalesced, yet slower than ours: profile both versions, ours as the baseline, and compare '
        'their launches (blocks, threads, elements per thread) and their Speed of Light.',
        'Juste et coalescé, et pourtant plus lent que le nôtre : profilez les deux versions, la nôtre comme '
        'référence, et comparez leurs lancements (blocs, threads, éléments par thread) et leur Speed of Light.',
        '结果正确、访存也合并了，却仍比我们的慢：把两个版本都剖析一遍，以我们的作为基准，比较它们的启动配置'
        '（block 数、线程数、每线程元素数）和 Speed of Light。',
    ),
    'exercise.04-chain.title': (
        'A chain of tiny launches, made one', 'Une chaîne de petits lancements, réduite à un seul',
        '把一串小启动合成一次',
    ),
    'exercise.04-chain.hint.correct': (
        'y must hold x passed through every step in order: y = a_k·y + b_k for k = 0, 1, …; the first step '
        'starts from x, not from y (y arrives filled with NaN).',
        'y doit contenir x passé par tous les pas, dans l’ordre : y = a_k·y + b_k pour k = 0, 1, … ; le premier '
        'pas part de x, pas de y (y arrive rempli de NaN).',
        'y 必须是 x 按顺序经过每一步的结果：对 k = 0, 1, … 依次做 y = a_k·y + b_k；第一步从 x 出发，'
        '而不是从 y（y 传进来时填满了 NaN）。',
    ),
    'exercise.04-chain.hint.launches': (
        'Each launch of scale_add lasts a few microseconds on a grid far smaller than the GPU: the launch costs '
        'more than the work. Apply every step in one kernel: each thread reads its element once, runs the whole '
        'chain in a register (the coefficients array is already on the GPU) and writes it once.',
        'Chaque lancement de scale_add dure quelques microsecondes, sur une grille bien plus petite que le GPU : '
        'le lancement coûte plus que le travail. Appliquez tous les pas dans un seul noyau : chaque thread lit son '
        'élément une fois, fait toute la chaîne dans un registre (le tableau coefficients est déjà sur le GPU) et '
        'l’écrit une fois.',
        'scale_add 每次启动只持续几微秒，grid 远小于 GPU：启动的开销比计算本身还大。把所有步骤放进一个 '
        'kernel：每个线程读一次自己的元素，在寄存器里走完整条链（coefficients 数组已经在 GPU 上），'
        '再写一次。',
    ),
    'exercise.04-chain.hint.time': (
        'Count the launches first: each costs microseconds, more than the work. With one launch and still slower '
        'than ours, look at what normalise() does besides launching. A copy to or '
        'from the host, an allocation or a synchronisation puts the GPU back to waiting for the CPU, as the lab’s '
        'timeline shows. And a grid of fewer threads than elements makes each thread run the chain several times, one '
        'after the other, where ours gives every element its own thread.',
        'Comptez d’abord les lancements : chacun coûte des microsecondes, plus que le travail. Avec un seul '
        'lancement et pourtant plus lent que le nôtre, regardez ce que normalise() fait d’autre que '
        'lancer. Une copie vers l’hôte ou depuis l’hôte, une allocation ou une synchronisation remettent le GPU '
        'en attente du CPU, comme le montre la chronologie du lab. Et une grille de moins de threads que '
        'd’éléments fait parcourir la chaîne plusieurs fois à chaque thread, l’une après l’autre, quand la nôtre '
        'donne à chaque élément son propre thread.',
        '先数一数启动次数：每次启动要花几微秒，比计算本身还多。如果只启动了一次却仍比我们的慢，'
        '看看 normalise() 除了启动之外还做了什么。一次与主机之间的拷贝、'
        '一次内存分配或一次同步，都会让 GPU 重新等待 CPU，正如 lab 的时间线所示。而线程数少于元素数的'
        'grid，会让每个线程依次把整条链走好几遍，我们的解法则让每个元素都有自己的线程。',
    ),
}
