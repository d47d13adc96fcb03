internal import CMediaLoader

/// `MovieWriter`'s sound: the encoder, and keeping the samples on the picture's clock.
extension MovieWriter {
    /// Adds interleaved signed 16-bit sound (`settings.audio`'s channel count) captured at
    /// `timestampNanoseconds`. Sound is kept on the video's clock: whenever the samples and their
    /// timestamps disagree by more than 10 ms (a sound card's clock drifting from the system's,
    /// lost buffers), silence is inserted or samples are skipped, so MP4's gapless audio track
    /// (which has no timestamps of its own) stays in step with the picture.
    public func appendAudio(_ samples: UnsafeBufferPointer<Int16>, timestampNanoseconds: Int64) throws(MediaError) {
        FFmpegLog.enter()
        defer { FFmpegLog.leave() }
        guard !finished, audio != nil, let sound = settings.audio, let origin else { return }  // no video yet: nothing to align to
        let channels = sound.channels, rate = Int64(sound.sampleRate)
        // Where these samples belong on the movie's timeline, and where the track has got to.
        let actual = (timestampNanoseconds - origin) * rate / 1_000_000_000
        // Samples still to be skipped count as already placed.
        let expected = nextAudioPTS + Int64(pendingCount) - Int64(samplesToSkip)
        let drift = actual - expected
        if !audioAnchored || abs(drift) > rate / 100 {
            if audioAnchored { audioCorrections += Int(abs(drift)) }
            audioAnchored = true
            if drift > 0 {
                let cancelled = min(samplesToSkip, Int(drift))
                samplesToSkip -= cancelled
                try appendSilence(Int(drift) - cancelled)
            } else {
                samplesToSkip += Int(-drift)
            }
        }
        var offset = 0
        if samplesToSkip > 0 {
            let skipped = min(samplesToSkip, samples.count / channels)
            samplesToSkip -= skipped
            offset = skipped * channels
        }
        try appendSamples(UnsafeBufferPointer(rebasing: samples[offset...]), channels: channels)
    }

    /// Puts samples into the pending frame, encoding each frame as it fills.
    func appendSamples(_ input: UnsafeBufferPointer<Int16>, channels: Int) throws(MediaError) {
        guard let audio else { return }
        let frameSize = Int(audio.pointee.frame_size > 0 ? audio.pointee.frame_size : 1024)
        var offset = 0
        while offset < input.count {
            let take = min(frameSize * channels - pendingCount * channels, input.count - offset)
            pendingAudio.withUnsafeMutableBufferPointer { pending in
                for index in 0..<take { pending[pendingCount * channels + index] = input[offset + index] }
            }
            pendingCount += take / channels
            offset += take
            if pendingCount == frameSize { try flushAudio(partial: false) }
        }
    }

    /// Adds `count` samples of silence per channel.
    func appendSilence(_ count: Int) throws(MediaError) {
        guard let sound = settings.audio else { return }
        let zeros = [Int16](repeating: 0, count: min(count, 4800) * sound.channels)
        var left = count
        while left > 0 {
            let piece = min(left, 4800)
            try zeros.withUnsafeBufferPointer { pointer throws(MediaError) in
                try appendSamples(UnsafeBufferPointer(rebasing: pointer.prefix(piece * sound.channels)), channels: sound.channels)
            }
            left -= piece
        }
    }

    /// Opens the sound encoder (AAC for MP4, Opus for WebM) and its stream and frame.
    func openAudio(sampleRate: Int, channels: Int) throws(MediaError) {
        let name = settings.format == .mp4 ? "aac" : "libopus"
        guard let codec = ffmpeg.avcodec_find_encoder_by_name(name), let context = ffmpeg.avcodec_alloc_context3(codec), let format,
              let stream = ffmpeg.avformat_new_stream(format, nil) else {
            throw .encoderFailed(format: "movie", reason: "this FFmpeg has no \(name) encoder")
        }
        audio = context
        audioStream = stream
        context.pointee.sample_rate = Int32(sampleRate)
        ffmpeg.av_channel_layout_default(&context.pointee.ch_layout, Int32(channels))
        context.pointee.sample_fmt = settings.format == .mp4 ? AV_SAMPLE_FMT_FLTP : AV_SAMPLE_FMT_S16
        context.pointee.bit_rate = Int64(64_000 * channels)
        context.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
        if format.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try check(ffmpeg.avcodec_open2(context, codec, nil), "opening \(name)")
        try check(ffmpeg.avcodec_parameters_from_context(stream.pointee.codecpar, context), "describing the sound")
        stream.pointee.time_base = context.pointee.time_base
        guard let frame = ffmpeg.av_frame_alloc() else { throw .encoderFailed(format: "movie", reason: "out of memory") }
        audioFrame = frame
        frame.pointee.format = context.pointee.sample_fmt.rawValue
        frame.pointee.nb_samples = context.pointee.frame_size > 0 ? context.pointee.frame_size : 1024
        frame.pointee.sample_rate = context.pointee.sample_rate
        _ = ffmpeg.av_channel_layout_copy(&frame.pointee.ch_layout, &context.pointee.ch_layout)
        try check(ffmpeg.av_frame_get_buffer(frame, 0), "allocating sound frames")
        if pendingAudio.count < Int(frame.pointee.nb_samples) * channels {
            pendingAudio = [Int16](repeating: 0, count: Int(frame.pointee.nb_samples) * channels)
        }
    }

    /// Encodes the pending sound samples (a full frame, or what there is when `partial`).
    func flushAudio(partial: Bool) throws(MediaError) {
        guard let audio, let frame = audioFrame, let audioStream, let sound = settings.audio, pendingCount > 0 else { return }
        let frameSize = Int(audio.pointee.frame_size > 0 ? audio.pointee.frame_size : 1024)
        guard partial || pendingCount == frameSize else { return }
        try check(ffmpeg.av_frame_make_writable(frame), "preparing a sound frame")
        let channels = sound.channels, count = pendingCount
        frame.pointee.nb_samples = Int32(count)
        frame.pointee.pts = nextAudioPTS
        pendingAudio.withUnsafeBufferPointer { pending in
            if audio.pointee.sample_fmt == AV_SAMPLE_FMT_FLTP {
                for channel in 0..<channels {
                    let plane = UnsafeMutableRawPointer(frame.pointee[data: channel]!).assumingMemoryBound(to: Float.self)
                    for index in 0..<count { plane[index] = Float(pending[index * channels + channel]) / 32768 }
                }
            } else {
                let plane = UnsafeMutableRawPointer(frame.pointee[data: 0]!).assumingMemoryBound(to: Int16.self)
                plane.update(from: pending.baseAddress!, count: count * channels)
            }
        }
        nextAudioPTS += Int64(count)
        pendingCount = 0
        try check(ffmpeg.avcodec_send_frame(audio, frame), "encoding sound")
        frame.pointee.nb_samples = Int32(frameSize)
        try drain(audio, stream: audioStream)
    }
}
