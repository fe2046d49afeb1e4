"""Words several labs' tables share. (en, fr, zh)"""

WORDS = {
    'column.kernel': ('kernel', 'noyau', 'kernel'),
    'value.yes': ('yes', 'oui', '是'),
    'value.no': ('no', 'non', '否'),
}
