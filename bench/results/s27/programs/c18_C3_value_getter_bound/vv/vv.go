package vv

type V struct{ Data []float64 }

func (v *V) Len() int         { return len(v.Data) }
func (v V) Get(i int) float64 { return v.Data[i] }
