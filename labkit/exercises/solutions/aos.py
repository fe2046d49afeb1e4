"""Exercice 02-aos, notre solution · 练习 02-aos 参考解

FR. Un thread par mot de 4 octets, et non par particule : le thread w lit le mot w du tableau vu à
plat, soit le champ w mod 8 de la particule w // 8. Les 32 voies d'un warp lisent 128 octets
contigus (4 particules entières) : 4 secteurs par requête, en lecture comme en écriture. Un thread
de position lit en plus la vitesse de sa particule, 3 mots plus loin, dans les mêmes secteurs que
son warp vient de lire. La disposition ne change pas : seule change l'attribution des mots aux
threads. (Passer par la mémoire partagée marche aussi : lectures coalescées des enregistrements du
bloc, calcul, écritures coalescées ; au pas de 8 mots par enregistrement, la lecture d'un champ
par 32 threads y ferait des conflits de banc à 8 voies, au pas de 9 elle n'en fait aucun.) Les indices viennent d'un décalage et d'un masque, 8 étant une
puissance de deux : `//` et `%` de Python sur des entiers signés arrondissent vers le bas et
coûtent quelques instructions de plus par mot.
中文。每个线程负责一个 4 字节的字，而不是一个粒子：线程 w 读取展平后数组的第 w 个字，即第
w // 8 个粒子的第 w mod 8 个字段。一个 warp 的 32 个 lane 读取连续的 128 字节（正好 4 个完整粒子）：
读写都是每次请求 4 个 sector。负责位置的线程再读一次本粒子的速度，在 3 个字之后，落在本 warp 刚读过
的同一批 sector 里。数据布局不变，变的只是字与线程的对应关系。（经 shared memory 中转也可以：合并读入本
block 的记录，计算，再合并写出；记录按 8 个字的步长存放时，32 个线程读同一字段会产生 8 路 bank 冲突，
按 9 个字的步长则没有冲突。）下标由移位和掩码得到，因为 8 是 2 的幂：Python 对有符号整数的 `//` 和
`%` 向下取整，每个字要多花几条指令。
"""

from labkit.gpu import cuda

FIELDS = 8
THREADS = 256


@cuda.jit
def drift_words(p, dt, out):
    w = cuda.grid(1)
    if w < p.shape[0] * FIELDS:
        i = w >> 3          # w // FIELDS: FIELDS = 8 = 2**3
        f = w & 7           # w % FIELDS
        value = p[i, f]
        if f < 3:
            value += p[i, f + 3] * dt
        out[i, f] = value


def drift(p, dt, out):
    blocks = (p.shape[0] * FIELDS + THREADS - 1) // THREADS
    drift_words[blocks, THREADS](p, dt, out)
