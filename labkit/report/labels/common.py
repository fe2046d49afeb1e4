"""Words several labs' tables share. (en, fr, zh)"""

WORDS = {
    'column.launch': ('launch', 'lancement', '启动'),
    'column.kernel': ('kernel', 'noyau', 'kernel'),
    'value.yes': ('yes', 'oui', '是'),
    'value.no': ('no', 'non', '否'),
}
