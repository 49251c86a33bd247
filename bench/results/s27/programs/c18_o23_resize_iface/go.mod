module example.com/o23_resize_iface

go 1.26
