-- hostile: few instructions, each copying a longer string (quadratic time within the budget)
return {
    template = "reference_gemm",
    arch = "sm_80",
    params = { tile = { 1 } },
    rank = function(config)
        local s = ""
        for i = 1, 100000000 do
            s = s .. "x"
        end
        return #s
    end,
}
