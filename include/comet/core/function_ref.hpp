// comet/core/function_ref.hpp — a non-owning reference to a callable, for the code that calls
// back into its caller but need not be compiled once per caller: the sampling engine (one copy
// serves every kernel's points) and the threads transport's waiting (one copy serves every
// condition a rank waits for).
//
// Deliberately not std::function: that owns (and may allocate) a copy of the callable, and its
// header is one more a kernel's translation unit would parse. Use a function_ref only as a
// parameter: it refers to a callable that must outlive the call it is passed to.
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

namespace comet {

template <class Signature>
class function_ref;

/// A reference to a callable `R(Args...)`: a pointer to it and a pointer to a function that
/// calls it. Cheap to copy; calls cost one indirect call.
template <class R, class... Args>
class function_ref<R(Args...)> {
public:
    template <class F>
        requires(!std::is_same_v<std::remove_cvref_t<F>, function_ref> && std::is_invocable_r_v<R, F&, Args...>)
    function_ref(F&& f) noexcept  // NOLINT: implicit on purpose, from the callable it refers to
        : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
          call_([](void* object, Args... args) -> R {
              return (*static_cast<std::remove_reference_t<F>*>(object))(std::forward<Args>(args)...);
          }) {}

    R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

private:
    void* object_;
    R (*call_)(void*, Args...);
};

}  // namespace comet
