def format_price(value):
    return "%.2f EUR" % value
