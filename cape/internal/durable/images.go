package durable

// Images-only logs: under distributed homes the master does not hold the
// bytes the slaves write in a region (only their write notices), so it
// cannot log a region's merged delta. Its log holds instead an image of the
// arena and the point's variables, taken at a checkpoint point after the
// master has fetched every page it lacks from the node that holds it, and
// replaced by the next image: no region records. A restart from it is a
// restart from an image with no records after it: the program computes
// the regions before the point's first reach, restores the image there and
// computes the rest. Images cost a fetch of the whole arena and a write of
// it, so they are spaced in time: at least a given time apart (a minute by
// default), and at least ImageCostFactor times the last image's cost apart.

import (
	"fmt"
	"time"
)

// DefaultEvery is the least time between two images of an images-only log
// when the job sets none.
const DefaultEvery = time.Minute

// ImageCostFactor spaces an images-only log's images by this many times
// the last one's cost (the fetch of the pages and the write), so that they
// take at most about 1/ImageCostFactor of the job's time.
const ImageCostFactor = 10

// imagePolicy is when an images-only log takes its next image.
type imagePolicy struct {
	on    bool
	every time.Duration
	last  time.Time     // the last image's end, or the log's opening
	cost  time.Duration // the last image's cost
	began time.Time     // when the image ImageDue allowed began
}

// newImagePolicy spaces images every apart: 0 means DefaultEvery, and a
// negative time an image at every point.
func newImagePolicy(every time.Duration) imagePolicy {
	switch {
	case every == 0:
		every = DefaultEvery
	case every < 0:
		every = 0
	}
	return imagePolicy{on: true, every: every, last: time.Now()}
}

// SetImagesOnly makes a new log an images-only log, whose images are at
// least every apart (0: DefaultEvery; negative: an image at every point),
// and returns that time (0: every point). The master
// calls it once the job's start-up chose distributed homes, before any
// region. A restart's log keeps its records.
func (d *Log) SetImagesOnly(every time.Duration) time.Duration {
	if d.rd == nil && d.w != nil {
		d.images = newImagePolicy(every)
	}
	return d.images.every
}

// ImagesOnly reports whether the log holds images and no region records.
func (d *Log) ImagesOnly() bool { return d.images.on }

// ImageDue reports whether an images-only log takes an image at the point
// reached now: its caller then makes the whole arena present and calls
// Point, which takes it.
func (d *Log) ImageDue() bool {
	p := &d.images
	if !p.on || d.w == nil || d.stopErr != nil {
		return false
	}
	now := time.Now()
	if p.every > 0 && now.Sub(p.last) < max(p.every, ImageCostFactor*p.cost) {
		return false
	}
	p.began = now
	return true
}

// pointImage replaces an images-only log by an image of a and vars at
// point name after region seq, when ImageDue allowed it.
func (d *Log) pointImage(name string, seq uint64, a Arena, vars [][]byte) {
	p := &d.images
	if p.began.IsZero() {
		return
	}
	defer func() { p.last, p.cost, p.began = time.Now(), time.Since(p.began), time.Time{} }()
	extent := a.Used()
	imgSize := int64(extent) + int64(len(name)) + 256 + int64(VarsLen(vars))
	if bound := d.Bound(extent); imgSize > bound {
		if !d.tooBig {
			d.notice(fmt.Sprintf("point %s: an image (%d bytes) would pass %s: no image is taken", name, imgSize, d.boundName()))
			d.tooBig = true
		}
		return
	}
	if !d.writeImage(name, seq, a, vars, imgSize) {
		return
	}
	d.image, d.logged = imgSize, seq
}

// tellNoImage says, at the end of an images-only log that holds no image,
// why, and what a restart from it does.
func (d *Log) tellNoImage() {
	if !d.images.on || d.compactions > 0 || d.stopErr != nil {
		return
	}
	why := "the program reached no //cape:checkpoint point"
	if d.pointSeen {
		why = fmt.Sprintf("no point was reached %v after the job's start", d.images.every)
	}
	d.notice(fmt.Sprintf("the log holds no image (%s): a restart from it starts from the beginning", why))
}
